"""Agreement statistics: two raters, many raters, Krippendorff's α, ICC, label sets."""
