# The Python package (python/perfcheck) under pytest, one ctest per test
# file, by label: unit (offline: diagnose, load, expectations, dataframe,
# ABI, library lookup), nogpu (regions without a usable driver, the install
# command), gpu (PyTorch in process, the examples; exit 77 = skipped, with
# pytest's reason printed).  Included from tests/CMakeLists.txt.
#
# The interpreter: PERFCHECK_PYTHON, else the first of Python3_EXECUTABLE,
# python3 on PATH and /usr/bin/python3 that can import pytest (Debian's
# python3-pytest installs it for /usr/bin/python3 only).

if(PERFCHECK_SANITIZE)
  # ctypes cannot load an ASan-instrumented library into an uninstrumented
  # python; the plain build runs these.
  message(STATUS "perfcheck: the Python tests are left out of the sanitizer build")
  return()
endif()

set(PERFCHECK_PYTHON "" CACHE FILEPATH "A python3 that has pytest, for the Python package's tests (empty: look for one)")
set(_py "${PERFCHECK_PYTHON}")
find_program(PERFCHECK_PYTHON3_ON_PATH python3)
if(NOT _py)
  foreach(_cand ${Python3_EXECUTABLE} ${PERFCHECK_PYTHON3_ON_PATH} /usr/bin/python3)
    if(NOT _py AND EXISTS "${_cand}")
      execute_process(COMMAND "${_cand}" -c "import sys, pytest; sys.exit(sys.version_info < (3, 9))"
                      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_py "${_cand}")
      endif()
    endif()
  endforeach()
endif()

if(NOT _py)
  # The examples below still run; the pytest files cannot.
  message(STATUS "perfcheck: no python3 (3.9 or newer) with pytest found: the Python tests will fail "
                 "(apt-get install python3-pytest, or set PERFCHECK_PYTHON)")
  add_test(NAME python.pytest_missing COMMAND sh -c
    "echo 'no python3 with pytest: apt-get install python3-pytest (or set -DPERFCHECK_PYTHON=...)'; exit 1")
  set_tests_properties(python.pytest_missing PROPERTIES LABELS unit)
else()
  message(STATUS "perfcheck: Python tests run with ${_py}")
endif()

# The GPU tests and examples want PyTorch: PERFCHECK_GPU_PYTHON, else the
# first candidate that imports torch and pytest, else the first that imports
# torch, else the one above (they then skip, saying torch is missing).
set(PERFCHECK_GPU_PYTHON "" CACHE FILEPATH "A python3 with PyTorch for the gpu-labelled Python tests (empty: look for one)")
set(_gpy "${PERFCHECK_GPU_PYTHON}")
foreach(_need "import torch, pytest" "import torch")
  foreach(_cand ${_py} ${Python3_EXECUTABLE} ${PERFCHECK_PYTHON3_ON_PATH} /usr/bin/python3)
    if(NOT _gpy AND EXISTS "${_cand}")
      execute_process(COMMAND "${_cand}" -c "${_need}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_gpy "${_cand}")
      endif()
    endif()
  endforeach()
endforeach()
foreach(_cand ${_py} ${PERFCHECK_PYTHON3_ON_PATH} /usr/bin/python3)
  if(NOT _gpy AND EXISTS "${_cand}")
    set(_gpy "${_cand}")
  endif()
endforeach()
if(NOT _gpy)
  message(STATUS "perfcheck: no python3: the Python package's tests and examples are left out")
  return()
endif()

# Helpers: the struct layout as the C compiler sees it, and three libraries
# the loader must refuse.
add_executable(pc_py_abi ${CMAKE_CURRENT_SOURCE_DIR}/python/abi_layout.c)
target_include_directories(pc_py_abi PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_options(pc_py_abi PRIVATE ${PERFCHECK_WARNINGS})
set(_py_fakes ${CMAKE_CURRENT_BINARY_DIR}/python_fakes)
foreach(_fake newmajor old other)
  add_library(pc_py_fake_${_fake} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/python/fake_perfcheck.c)
  set_target_properties(pc_py_fake_${_fake} PROPERTIES OUTPUT_NAME fake_${_fake}
                        LIBRARY_OUTPUT_DIRECTORY ${_py_fakes})
  target_compile_options(pc_py_fake_${_fake} PRIVATE ${PERFCHECK_WARNINGS})
endforeach()
find_package(Threads REQUIRED)
# The real core with sessions that need no GPU, for the profiling-on path
# on a CPU (session_double.c says what it does).
add_library(pc_py_session_double SHARED ${CMAKE_CURRENT_SOURCE_DIR}/python/session_double.c)
set_target_properties(pc_py_session_double PROPERTIES OUTPUT_NAME perfcheck_double LIBRARY_OUTPUT_DIRECTORY ${_py_fakes}
                      C_VISIBILITY_PRESET hidden)
target_link_libraries(pc_py_session_double PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,perfcheck_core>" Threads::Threads)
target_compile_options(pc_py_session_double PRIVATE ${PERFCHECK_WARNINGS})
target_compile_definitions(pc_py_fake_newmajor PRIVATE FAKE_VERSION=10203 FAKE_VERSION_STRING="1.2.3")
target_compile_definitions(pc_py_fake_old PRIVATE FAKE_VERSION=100 FAKE_VERSION_STRING="0.1.0")

# The toolkit's stub libcuda.so as libcuda.so.1 (as tests/nogpu does): with
# it first on LD_LIBRARY_PATH a GPU machine answers like one without a
# driver, so the no-GPU region tests mean the same everywhere.
set(_py_stub "")
foreach(d ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib64 ${CUDAToolkit_TARGET_DIR}/lib)
  if(NOT _py_stub AND EXISTS ${d}/stubs/libcuda.so)
    set(_py_stub ${d}/stubs/libcuda.so)
  endif()
endforeach()
set(_py_stubdir "")
if(_py_stub)
  set(_py_stubdir ${CMAKE_CURRENT_BINARY_DIR}/python_stubdriver)
  file(MAKE_DIRECTORY ${_py_stubdir})
  file(CREATE_LINK ${_py_stub} ${_py_stubdir}/libcuda.so.1 SYMBOLIC)
endif()

set(_py_env
  "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
  "PYTHONDONTWRITEBYTECODE=1"
  "PERFCHECK_LIBRARY=$<TARGET_FILE:perfcheck>"
  "PERFCHECK_TEST_DATA=${PERFCHECK_TEST_DATA}"
  "PERFCHECK_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "PERFCHECK_TEST_ABI=$<TARGET_FILE:pc_py_abi>"
  "PERFCHECK_TEST_FAKES=${_py_fakes}"
  "PERFCHECK_TEST_STUB_DRIVER_DIR=${_py_stubdir}"
  "PERFCHECK_CLI=$<TARGET_FILE:perfcheck_cli>")

# pc_py_test(file label [NAME name] [ENV var=value...]): tests/python/test_<file>.py
# as ctest python.<name> (name defaults to file).
function(pc_py_test file label)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "NAME" "ENV")
  set(_name ${file})
  if(arg_NAME)
    set(_name ${arg_NAME})
  endif()
  set(_interp ${_py})
  if(label STREQUAL "gpu")
    set(_interp ${_gpy})
  endif()
  # --basetemp: pytest's tmp_path folders go in the build tree, one per test
  # (cleared when it runs again), never into TMPDIR, where pytest would keep
  # the last three runs' folders.
  add_test(NAME python.${_name}
           COMMAND ${_interp} -m pytest -q -rs -p no:cacheprovider --skip-exit-77
                   --basetemp=${CMAKE_CURRENT_BINARY_DIR}/pytest-tmp.${_name}
                   ${CMAKE_CURRENT_SOURCE_DIR}/python/test_${file}.py)
  set_tests_properties(python.${_name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT "${_py_env};${arg_ENV}")
endfunction()

if(_py)
  pc_py_test(abi unit)
  pc_py_test(docs unit)
  pc_py_test(offline unit)
  pc_py_test(load unit)
  pc_py_test(expect unit)
  pc_py_test(dataframe unit)
  pc_py_test(loader unit)
  pc_py_test(session_double unit)
  # Regions without a driver: none at all (skipped where a real one is), and
  # the stub driver first on LD_LIBRARY_PATH (means the same on a GPU machine).
  pc_py_test(region_nogpu nogpu ENV "PERFCHECK_TEST_STUB_DRIVER_DIR=")
  if(_py_stubdir)
    pc_py_test(region_nogpu nogpu NAME region_nogpu_stub ENV "LD_LIBRARY_PATH=${_py_stubdir}")
  endif()
  pc_py_test(install nogpu)
  pc_py_test(gpu_torch gpu)
endif()

# The examples, on the device (exit 77 without a GPU or their framework).
foreach(_ex torch_step triton_kernel cupy_raw_kernel)
  add_test(NAME python.example.${_ex} COMMAND ${_gpy} ${PROJECT_SOURCE_DIR}/examples/python/${_ex}.py)
  set_tests_properties(python.example.${_ex} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT "${_py_env}")
endforeach()
