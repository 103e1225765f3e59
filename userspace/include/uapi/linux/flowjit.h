/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * FlowJIT: tracking of run-time generated code pages for exact decoding
 * of hardware traces (Intel PT) of JIT code.
 *
 * A tracked page is either writable and not executable, or executable
 * and read-only. Every flip is a fault that FlowJIT logs as a record in
 * a kernel ring; an EXEC record carries a snapshot of the page. Records
 * are read from /proc/flowjit/stream. See
 * Documentation/admin-guide/flowjit.rst.
 */
#ifndef _UAPI_LINUX_FLOWJIT_H
#define _UAPI_LINUX_FLOWJIT_H

#include <linux/types.h>

/* prctl(PR_FLOWJIT, op, flags, 0, 0); PR_FLOWJIT is in linux/prctl.h */
#define FLOWJIT_OP_ENABLE	1	/* track the calling process */
#define FLOWJIT_OP_DISABLE	2	/* stop tracking it */
#define FLOWJIT_OP_GET		3	/* tracking flags | FLOWJIT_F_TRACKED, or 0 */

/* Tracking flags (prctl and /proc/flowjit/control "track PID FLAGS") */
#define FLOWJIT_F_INHERIT	0x1	/* children of fork/vfork are tracked too */
#define FLOWJIT_F_ALL_EXEC	0x2	/* every executable page, file text included */
#define FLOWJIT_F_TRACKED	0x40000000	/* FLOWJIT_OP_GET: the process is tracked */
#define FLOWJIT_F_MASK		(FLOWJIT_F_INHERIT | FLOWJIT_F_ALL_EXEC)

/* Record types */
enum flowjit_event_type {
	FLOWJIT_EV_EXEC = 1,	/* fetch from a tracked page: made X/RO, payload = page */
	FLOWJIT_EV_WRITE,	/* write to a tracked executable page: made W/NX */
	FLOWJIT_EV_MPROTECT,	/* mprotect(addr, len, aux = prot) */
	FLOWJIT_EV_MUNMAP,	/* range [addr, addr + len) unmapped */
	FLOWJIT_EV_MREMAP,	/* [aux, aux + len) moved to addr */
	FLOWJIT_EV_TRACK,	/* tracking started: aux = flags */
	FLOWJIT_EV_UNTRACK,	/* tracking stopped: aux = FLOWJIT_UNTRACK_* */
	FLOWJIT_EV_FORK,	/* pid is a new tracked child of aux */
	FLOWJIT_EV_EXECVE,	/* pid replaced its address space (execve) */
	FLOWJIT_EV_LOST,	/* aux events were dropped (ring full) before this */
	FLOWJIT_EV_MAX
};

/* Record flags */
#define FLOWJIT_EVF_PAYLOAD	0x1	/* FLOWJIT_PAGE_SIZE bytes of page follow */
#define FLOWJIT_EVF_KERNEL	0x2	/* the access came from the kernel (e.g. copy_to_user) */
#define FLOWJIT_EVF_NOPAGE	0x4	/* EXEC without payload: no struct page */
/* EXEC: page left W+X while a store into its own page is single-stepped */
#define FLOWJIT_EVF_STEP	0x8
/* WRITE by another process (ptrace, /proc/PID/mem): aux = its pid, no IP */
#define FLOWJIT_EVF_REMOTE	0x10
/*
 * WRITE through another mapping of the page (a second view of a memfd or
 * shared file, another process' mapping) or into the page cache (write(2))
 */
#define FLOWJIT_EVF_ALIAS	0x20
/*
 * EXEC of a page pinned for DMA or long-term kernel access (io_uring
 * fixed buffers), or that the kernel holds more references to than its
 * mappings and caches account for (an O_DIRECT read in flight): writes
 * through them raise no WRITE, so the snapshot may not stay what runs
 */
#define FLOWJIT_EVF_PINNED	0x40

/* UNTRACK aux: why tracking stopped */
#define FLOWJIT_UNTRACK_DISABLE		0	/* prctl, "untrack" or exit */
#define FLOWJIT_UNTRACK_SECUREEXEC	1	/* execve() that gained privileges */

#define FLOWJIT_PAGE_SIZE	4096

/**
 * struct flowjit_event - one record of the FlowJIT stream
 * @type:	enum flowjit_event_type
 * @flags:	FLOWJIT_EVF_*
 * @size:	bytes of this record, payload included; a multiple of 8
 * @seq:	sequence number; gaps are accounted for by LOST records
 * @tsc:	raw TSC at the event (the clock Intel PT uses)
 * @time_ns:	CLOCK_MONOTONIC at the event
 * @pid:	process (thread group) id; pids are those of the pid
 *		namespace of the task that started the tracking
 * @tid:	thread id (of the writer for a FLOWJIT_EVF_REMOTE write)
 * @cpu:	CPU the event was logged on
 * @reserved:	zero
 * @ip:		user instruction pointer at the fault (the faulting IP for EXEC)
 * @addr:	page address (EXEC, WRITE) or range start
 * @len:	range length (MPROTECT, MUNMAP, MREMAP)
 * @aux:	type-specific: prot, flags, parent pid, old address, lost
 *		count, writer pid, reason
 */
struct flowjit_event {
	__u16 type;
	__u16 flags;
	__u32 size;
	__u64 seq;
	__u64 tsc;
	__u64 time_ns;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 reserved;
	__u64 ip;
	__u64 addr;
	__u64 len;
	__u64 aux;
};

/* read() of /proc/flowjit/stream needs room for at least one record. */
#define FLOWJIT_READ_MIN	(sizeof(struct flowjit_event) + FLOWJIT_PAGE_SIZE)

#endif /* _UAPI_LINUX_FLOWJIT_H */
