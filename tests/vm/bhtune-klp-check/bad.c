// SPDX-License-Identifier: GPL-2.0
/*
 * What scripts/klp-check.sh must refuse, built by tests/vm/bhtune.prep with
 * the host's gcc -O2: funcs[] "registers" a function that tail-jumps to a
 * shared body, one with a .cold part, one that may fall off its end, and
 * one that is fine.
 */
__attribute__((cold)) int report(const char *fmt, ...);
__attribute__((noreturn)) void stop(void);
void other(int x);
extern int g;

__attribute__((noinline)) int body(int x)
{
	return x * 3 + g;
}

int tail_jumps(int x)
{
	return body(x + 1);
}

int has_cold_part(int x)
{
	int i, s = 0;

	for (i = 0; i < x; i++) {
		if (g == i) {
			report("%d\n", x);
			other(x);
		}
		s += i * g;
	}
	return s;
}

int falls_through(int x)
{
	if (x)
		return 1;
	stop();
}

int fine(int x)
{
	other(x);
	return 0;
}

struct func {
	const char *name;
	void *new_func;
} funcs[] = {
	{ "a", tail_jumps },
	{ "b", has_cold_part },
	{ "c", falls_through },
	{ "d", fine },
	{ }
};
