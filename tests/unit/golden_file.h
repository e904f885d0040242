/* Golden files for the tests of pure renderers: the text a renderer made
 * is compared with tests/unit/golden/NAME (GOLDEN_DIR overrides the
 * directory), and the first differing line is shown. Run a test with
 * UPDATE_GOLDEN=1 to rewrite its golden files, then review the diff. */
#ifndef AS_TEST_GOLDEN_FILE_H
#define AS_TEST_GOLDEN_FILE_H

/* Fails the test when `text` is not the golden file's content. */
void assert_golden_file(const char *name, const char *text);

#endif
