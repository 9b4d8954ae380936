"""spbench plot's charts: plot (the command), drawing (gnuplot scripts and
what every chart shares), rank_charts (scaling over ranks), compare_chart
(spbench compare --chart)."""
