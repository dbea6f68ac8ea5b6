/* Stand-ins for libperfcheck.so.0 that the Python package must refuse
 * (tests/python/test_loader.py): built three ways by python_tests.cmake.
 *   FAKE_VERSION/FAKE_VERSION_STRING set: a library of that version with no
 *   other perfcheck function (a newer major, or an old one without the
 *   binding API); neither set: a library that is not libperfcheck at all. */
#if defined(FAKE_VERSION)
__attribute__((visibility("default"))) unsigned perfcheck_version_number(void) { return FAKE_VERSION; }
__attribute__((visibility("default"))) const char *perfcheck_version_string(void) { return FAKE_VERSION_STRING; }
#else
__attribute__((visibility("default"))) int not_perfcheck(void) { return 0; }
#endif
