/* jobs/net.c: the net family of the AIM7 job catalog. */
#include "jobs/catalog.h"
