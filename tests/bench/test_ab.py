#!/usr/bin/env python3
"""ab.py reads each bench's columns by their header: the tables of three bench layouts
(before the in-run baselines, after them, and after the user-CPU ratio column was added),
and a row whose label is missing."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402


# (header, row, customers/s, bytes per waiting user) of each layout the bench has had.
LAYOUTS = {
    "before the in-run baselines": (
        "workload               customers    customers/s       events/s       wall_s    bytes/waiting    peak_wait",
        "flash_crowd             10004340        5400000       10000000        1.852             25.6      9007474",
        5400000.0, 25.6),
    "in-run baselines, no user-CPU ratio": (
        "workload                 customers  customers/s    baseline   baseline/s   ratio B/wait mdl B/wait RSS  peak wait   RSS MiB",
        "flash_crowd               10004340      7929897  pbds_flash      2344211    3.35       23.2       23.5    9007474     202.1",
        7929897.0, 23.2),
    "with the user-CPU ratio": (
        "workload                 customers  customers/s    baseline   baseline/s   ratio ratio CPU B/wait mdl B/wait RSS  peak wait   RSS MiB",
        "flash_crowd               10004340      7929897  pbds_flash      2344211    3.35      2.91       23.2       23.5    9007474     202.1",
        7929897.0, 23.2),
}


class ColumnByHeader(unittest.TestCase):
    def test_every_layout(self):
        for name, (header, row, rate, bytes_per_user) in LAYOUTS.items():
            with self.subTest(name):
                self.assertEqual(ab.column(header, row, ["customers/s"]), rate)
                self.assertEqual(ab.column(header, row, ["B/wait mdl", "bytes/waiting"]),
                                 bytes_per_user)

    def test_a_label_inside_a_longer_one_is_not_it(self):
        h = "workload     ratio CPU"
        r = "flash_crowd       2.91"
        self.assertIsNone(ab.column(h, r, ["ratio"]))
        self.assertIsNone(ab.column(h, r, ["CP"]))

    def test_a_dash_is_an_error_not_a_traceback(self):
        h = "workload     ratio"
        r = "plain_mm1        -"
        with self.assertRaises(SystemExit):
            ab.column(h, r, ["ratio"])

    def test_no_such_column(self):
        h = "workload                 customers  customers/s"
        r = "flash_crowd               10004340      7929897"
        self.assertIsNone(ab.column(h, r, ["B/wait mdl", "bytes/waiting"]))


if __name__ == "__main__":
    unittest.main()
