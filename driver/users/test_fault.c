/* driver/users/test_fault.c: faults a test injects into one user with AIMSWEEP_TEST_FAULT. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver/users/test_fault.h"
#include "driver/users/user_ctx.h"
#include "driver/base/util.h"

static void sleep_s(double seconds)
{
	sleep_until_ns(now_ns() + (uint64_t)(seconds * NSEC_PER_SEC), NULL);
}

void test_fault_inject(const char *spec, unsigned int user)
{
	char kind[16];
	unsigned int who;
	double delay_s = 0.5;

	if (!spec || sscanf(spec, "%15[a-z]:%u:%lf", kind, &who, &delay_s) < 2 ||
	    who != user || !strcmp(kind, "lag"))
		return;
	sleep_s(delay_s);
	if (!strcmp(kind, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	} else if (!strcmp(kind, "kill")) {
		raise(SIGKILL);
	} else if (!strcmp(kind, "exit")) {
		_exit(USER_EXIT_TEST_FAULT);
	} else if (!strcmp(kind, "hang")) {
		for (;;)
			pause();
	}
}

void test_fault_lag(const char *spec, unsigned int user)
{
	unsigned int who;
	double delay_s;

	if (spec && sscanf(spec, "lag:%u:%lf", &who, &delay_s) == 2 &&
	    who == user)
		sleep_s(delay_s);
}
