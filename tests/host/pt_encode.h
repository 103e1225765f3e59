/* SPDX-License-Identifier: GPL-2.0 */
/* Intel PT traces for tests, written with libipt's packet encoder. */
#ifndef JIFL_TESTS_PT_ENCODE_H
#define JIFL_TESTS_PT_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

/*
 * Encode @n packets into @buf; the offset of each in @offs (if not
 * NULL). Returns the size of the trace, 0 if a packet does not encode
 * or does not fit.
 */
static inline size_t pt_encode(const struct pt_packet *pkts, size_t n, uint8_t *buf,
			       size_t size, uint64_t *offs)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t off = 0;
	size_t i;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	enc = pt_alloc_encoder(&cfg);
	for (i = 0; enc && i < n; i++) {
		if (offs)
			pt_enc_get_offset(enc, &offs[i]);
		if (pt_enc_next(enc, &pkts[i]) < 0)
			break;
	}
	if (enc)
		pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);
	return i == n ? off : 0;
}

#endif /* JIFL_TESTS_PT_ENCODE_H */
