/* driver/users/test_fault.h: faults a test injects into one user with AIMSWEEP_TEST_FAULT. */
#ifndef AIMSWEEP_TEST_FAULT_H
#define AIMSWEEP_TEST_FAULT_H

/*
 * AIMSWEEP_TEST_FAULT="KIND:USER[:SECONDS]" makes one user misbehave, so
 * that tests can check how the driver copes; `spec` is its value, NULL
 * when unset. Not for benchmarking.
 */

/* After the gate opens, in place of the user's loop: KIND crash
 * (SIGSEGV), kill (SIGKILL), exit (status USER_EXIT_TEST_FAULT) or hang
 * (ignores the stop flag), SECONDS (default 0.5) after the call. Returns
 * at once for any other user or KIND. */
void test_fault_inject(const char *spec, unsigned int user);

/* KIND lag: the user sleeps SECONDS each time it is woken for a level,
 * before it reads which users the level calls, as a user the scheduler
 * left off its CPU would. */
void test_fault_lag(const char *spec, unsigned int user);

#endif
