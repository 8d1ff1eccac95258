/* jobs/getppid_syscall.h: getppid made in place, for the null job and bench. */
#ifndef AIMSWEEP_JOBS_GETPPID_SYSCALL_H
#define AIMSWEEP_JOBS_GETPPID_SYSCALL_H

#include <sys/syscall.h>
#include <unistd.h>

/*
 * One getppid system call with no C library function around it. Every
 * return between a system call and the loop that made it costs, and
 * under a kernel mitigation such as SRSO's "Safe RET" a frame costs a
 * visible share of a getppid call: a job that called getppid() from its
 * run function, one frame more than a bare loop whose op tail-called
 * syscall(), made measurably fewer ops than that loop
 * (docs/performance.md). Made in place, the job's op returns once, as
 * the bare loop's does. Other architectures take the C library's
 * wrapper.
 */
static inline void getppid_syscall(void)
{
#if defined(__x86_64__)
	long nr = SYS_getppid;

	__asm__ volatile("syscall" : "+a"(nr) : : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_getppid;
	register long x0 __asm__("x0");

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	(void)x0;
#else
	syscall(SYS_getppid);
#endif
}

#endif
