/* jobs/disk.c: the disk family of the AIM7 job catalog. */
#include "jobs/catalog.h"
