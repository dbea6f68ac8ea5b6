# Configuration by environment and `perfcheck merge`.
# Included from tests/CMakeLists.txt.

pc_unit_test(config)
pc_unit_test(merge)

# `perfcheck merge` on JSON reports made at test time from the committed H200
# exports, the result read by python3's json module.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME unit.cli.merge COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/unit/check_merge.py
                                       $<TARGET_FILE:perfcheck_cli> ${PERFCHECK_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/merge_cli)
  set_tests_properties(unit.cli.merge PROPERTIES LABELS unit)
endif()
