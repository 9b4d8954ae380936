"""spbench's results package: the commands that read a study's files
(compare, merge, report, fetch, plot) and what they share: the statistics
(stats) and the charts (plots). `spbench COMMAND` runs them with this
package's folder on PYTHONPATH (bench/cli/helpers.c)."""
