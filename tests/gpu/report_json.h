// report_json.h: what the GPU tests read from a report's JSON text because
// the public structs do not carry it (profiled_launches, metric_set,
// not_measured_reason).  The JSON writer (lib/core/write/pc_write_json.c) writes
// `"key": value`, one member a line, and kernels in report order, so the k-th
// "profiled_launches" belongs to kernel index k.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "perfcheck.h"

// The report as JSON text; "" when it cannot be written.
inline std::string rj_text(const perfcheck_report* r) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return std::string();
  const perfcheck_status st = perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, f);
  std::fclose(f);  // sets buf and len
  std::string s = (st == PERFCHECK_OK && buf) ? std::string(buf, len) : std::string();
  std::free(buf);
  return s;
}

// Where the value of each `"key":` member starts, in document order.
inline std::vector<size_t> rj_value_offsets(const std::string& js, const char* key) {
  std::vector<size_t> at;
  const std::string pat = std::string("\"") + key + "\":";
  for (size_t p = js.find(pat); p != std::string::npos; p = js.find(pat, p + pat.size())) {
    size_t v = p + pat.size();
    while (v < js.size() && js[v] == ' ') ++v;
    at.push_back(v);
  }
  return at;
}

// Every number written for `key`, in document order; null is NaN.
inline std::vector<double> rj_numbers(const std::string& js, const char* key) {
  std::vector<double> out;
  for (size_t v : rj_value_offsets(js, key)) {
    const char* s = js.c_str() + v;
    char* end = nullptr;
    const double d = std::strtod(s, &end);
    out.push_back(end == s ? std::nan("") : d);
  }
  return out;
}

// Every string written for `key`, in document order ("null" for null); only
// \" and \\ are unescaped, enough for messages.
inline std::vector<std::string> rj_strings(const std::string& js, const char* key) {
  std::vector<std::string> out;
  for (size_t v : rj_value_offsets(js, key)) {
    if (v >= js.size() || js[v] != '"') {
      out.push_back("null");
      continue;
    }
    std::string s;
    for (size_t i = v + 1; i < js.size() && js[i] != '"'; ++i) {
      if (js[i] == '\\' && i + 1 < js.size()) ++i;
      s += js[i];
    }
    out.push_back(s);
  }
  return out;
}

// The first string written for `key`, "" when there is none.
inline std::string rj_string(const std::string& js, const char* key) {
  const std::vector<std::string> v = rj_strings(js, key);
  return v.empty() ? std::string() : v[0];
}

// The text of each object of the array written for `key` (the first such
// array), in order: a kernel entry's members, to read with the functions
// above.  Strings are skipped whole, so braces inside names do not count.
inline std::vector<std::string> rj_objects(const std::string& js, const char* key) {
  std::vector<std::string> out;
  const std::vector<size_t> at = rj_value_offsets(js, key);
  if (at.empty() || at[0] >= js.size() || js[at[0]] != '[') return out;
  int depth = 0;
  size_t start = 0;
  bool in_str = false;
  for (size_t i = at[0] + 1; i < js.size(); ++i) {
    const char c = js[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      if (depth++ == 0) start = i;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // the array's own ']'
      if (--depth == 0) out.push_back(js.substr(start, i - start + 1));
    }
  }
  return out;
}
