"""Prices shared by the Spark tests of the doors: two V shapes in x (1-3-5 and 5-7-8),
one in y, and a flat step at the end of y."""

PRICES = [
    ("x", 1, 10.0),
    ("x", 2, 9.0),
    ("x", 3, 8.0),
    ("x", 4, 9.0),
    ("x", 5, 11.0),
    ("x", 6, 10.0),
    ("x", 7, 12.0),
    ("y", 1, 5.0),
    ("y", 2, 4.0),
    ("y", 3, 6.0),
    ("y", 4, 6.0),
]
