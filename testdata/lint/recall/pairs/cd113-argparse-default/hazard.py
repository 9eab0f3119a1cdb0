import argparse


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device-a", default="cuda:0")
    ap.add_argument("--device-b", default="cuda:1")  # want CD113
    return ap.parse_args()
