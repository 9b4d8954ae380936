# Writes the commit the build is made from into a header, at every build
# (not only at configure): cmake -DSOURCE_DIR=... -DOUTPUT=... -P git_commit.cmake
# "abc123def456", "abc123def456-dirty" when a tracked file that is not
# documentation differs from it (results and notes written into the tree
# beside an evidence build do not make it dirty; an edit to the code does),
# "unknown" outside a git tree. The header is rewritten only when its
# text changes, so an unchanged commit recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE failed)
if(failed OR NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no -- .
                          ":(exclude)docs" ":(exclude,glob)**/*.md" WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    set(commit "${commit}-dirty")
  endif()
endif()
set(text "/* written at build time by scripts/git_commit.cmake */\n#define SPB_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
