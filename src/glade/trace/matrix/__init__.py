"""What a comm matrix shows of a trace: its messages as arrays (:mod:`.index`) and their
sums per cell, orderings and pooled blocks (:mod:`.cells`), for the matrix widget
(:mod:`glade.views.matrix`) to transport."""
