#include <metis.h>
