/* Status text, version, cause and bound names, and the thread-local last
 * error message.  All static text: nothing here allocates. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/pc_util.h"

PERFCHECK_API const char *perfcheck_strerror(perfcheck_status status) {
  switch (status) {
#define PC_STATUS_CASE_(name, value, msg) \
  case PERFCHECK_##name:                  \
    return msg;
    PERFCHECK_STATUS_LIST(PC_STATUS_CASE_)
#undef PC_STATUS_CASE_
    default:
      return "unknown perfcheck status";
  }
}

PERFCHECK_API const char *perfcheck_cause_name(perfcheck_cause cause) {
  switch (cause) {
#define PC_CAUSE_CASE_(name, value, word) \
  case PERFCHECK_CAUSE_##name:           \
    return word;
    PERFCHECK_CAUSE_LIST(PC_CAUSE_CASE_)
#undef PC_CAUSE_CASE_
    default:
      return "unknown";
  }
}

PERFCHECK_API const char *perfcheck_bound_name(perfcheck_bound bound) {
  switch (bound) {
    case PERFCHECK_BOUND_MEMORY:
      return "memory";
    case PERFCHECK_BOUND_COMPUTE:
      return "compute";
    case PERFCHECK_BOUND_LATENCY:
      return "latency";
    default:
      return "unknown";
  }
}

PERFCHECK_API const char *perfcheck_version_string(void) { return PERFCHECK_VERSION_STRING; }

PERFCHECK_API unsigned perfcheck_version_number(void) { return PERFCHECK_VERSION_NUMBER; }

static _Thread_local char pc_last_error[PC_MSG_MAX];

PERFCHECK_API const char *perfcheck_last_error_message(void) { return pc_last_error; }

void pc_clear_error(void) { pc_last_error[0] = '\0'; }

perfcheck_status pc_fail(perfcheck_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pc_msg_vformat(pc_last_error, sizeof pc_last_error, fmt, ap);
  va_end(ap);
  return st;
}
