# Reliability: the regex guard, safe report files, damaged exports,
# linear costs.  Included from tests/CMakeLists.txt.
pc_unit_test(regex)
pc_unit_test(output)
pc_unit_test(scale)
pc_unit_test(locale)
