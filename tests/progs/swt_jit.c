// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny JIT: writes code into an anonymous executable mapping and runs
 * it. perf cannot see anonymous code, so its decoder must report errors
 * there: the problem FlowJIT solves.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
	/* mov eax, N; ret */
	unsigned char code[] = { 0xb8, 0x00, 0x00, 0x00, 0x00, 0xc3 };
	int i, sum = 0, (*fn)(void);
	unsigned char *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < 3; i++) {
		code[1] = i + 1;
		if (mprotect(p, 4096, PROT_READ | PROT_WRITE))
			return 1;
		memcpy(p, code, sizeof(code));
		if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
			return 1;
		fn = (int (*)(void))p;
		sum += fn();
	}
	printf("%d\n", sum);
	return 0;
}
