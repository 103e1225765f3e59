// SPDX-License-Identifier: GPL-2.0
#include "bigstack.h"
#include "common/errcode.h"

int jifl_bigstack_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		return err;
	err = pthread_attr_setstacksize(&attr, JIFL_DECODE_STACK);
	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

struct call {
	int (*fn)(void *);
	void *arg;
	int ret;
};

static void *run(void *arg)
{
	struct call *c = arg;

	c->ret = c->fn(c->arg);
	return NULL;
}

int jifl_bigstack_call(int (*fn)(void *), void *arg)
{
	struct call c = { .fn = fn, .arg = arg };
	pthread_t t;

	if (jifl_bigstack_create(&t, run, &c))
		return -jifl_err_nomem;
	pthread_join(t, NULL);
	return c.ret;
}
