/* jobs/ipc.c: the ipc family of the AIM7 job catalog. */
#include "jobs/catalog.h"
