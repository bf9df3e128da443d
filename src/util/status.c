/*
 * The string table of shoal_status_t, generated from the same list as the enum.
 */
#include "util/status.h"

const char *shoal_status_str(shoal_status_t status)
{
    switch (status) {
#define SHOAL_STATUS_CASE(name, value, text)                                                       \
    case name:                                                                                     \
        return text;
        SHOAL_STATUS_LIST(SHOAL_STATUS_CASE)
#undef SHOAL_STATUS_CASE
    }
    return "unknown status";
}
