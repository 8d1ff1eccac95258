/* jobs/exec_child.c: the program exec_test runs: it exits at once. */
int main(void)
{
	return 0;
}
