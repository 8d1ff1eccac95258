/* jobs/compute.c: the compute family of the AIM7 job catalog. */
#include "jobs/catalog.h"
