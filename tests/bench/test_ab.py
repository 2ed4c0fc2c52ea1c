#!/usr/bin/env python3
"""ab.py reads each bench's columns by their header: the tables of three bench layouts
(before the in-run baselines, after them, and after the user-CPU ratio column was added),
and a row whose label is missing."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402


class ColumnByHeader(unittest.TestCase):
    def test_before_the_in_run_baselines(self):
        h = "workload               customers    customers/s       events/s       wall_s    bytes/waiting    peak_wait"
        r = "flash_crowd             10004340        5400000       10000000        1.852             25.6      9007474"
        self.assertEqual(ab.column(h, r, ["customers/s"]), 5400000.0)
        self.assertEqual(ab.column(h, r, ["B/wait mdl", "bytes/waiting"]), 25.6)

    def test_in_run_baselines_without_the_user_cpu_ratio(self):
        h = "workload                 customers  customers/s    baseline   baseline/s   ratio B/wait mdl B/wait RSS  peak wait   RSS MiB"
        r = "flash_crowd               10004340      7929897  pbds_flash      2344211    3.35       23.2       23.5    9007474     202.1"
        self.assertEqual(ab.column(h, r, ["customers/s"]), 7929897.0)
        self.assertEqual(ab.column(h, r, ["B/wait mdl", "bytes/waiting"]), 23.2)

    def test_with_the_user_cpu_ratio(self):
        h = "workload                 customers  customers/s    baseline   baseline/s   ratio ratio CPU B/wait mdl B/wait RSS  peak wait   RSS MiB"
        r = "flash_crowd               10004340      7929897  pbds_flash      2344211    3.35      2.91       23.2       23.5    9007474     202.1"
        self.assertEqual(ab.column(h, r, ["customers/s"]), 7929897.0)
        self.assertEqual(ab.column(h, r, ["B/wait mdl", "bytes/waiting"]), 23.2)

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
