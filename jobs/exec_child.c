/* jobs/exec_child.c: the program exec_test runs: it exits at once. */

/*
 * exec_test times program loads: the exec and the exit, not a dynamic
 * loader or a C library starting up. Where configure found that it can
 * (EXEC_CHILD_FREESTANDING), this program is therefore built static and
 * without a C library, and its entry point makes its one system call,
 * exit_group(0). Elsewhere it is an ordinary program returning 0.
 */
#ifdef EXEC_CHILD_FREESTANDING
#include <asm/unistd.h>

#define EXEC_CHILD_STR(x) #x
#define EXEC_CHILD_XSTR(x) EXEC_CHILD_STR(x)

#if defined(__x86_64__)
__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"\tmovl $" EXEC_CHILD_XSTR(__NR_exit_group) ", %eax\n"
	"\txorl %edi, %edi\n"
	"\tsyscall\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl _start\n"
	".type _start, %function\n"
	"_start:\n"
	"\tmov x8, #" EXEC_CHILD_XSTR(__NR_exit_group) "\n"
	"\tmov x0, #0\n"
	"\tsvc #0\n");
#else
#error "no freestanding entry point for this architecture"
#endif

#else
int main(void)
{
	return 0;
}
#endif
