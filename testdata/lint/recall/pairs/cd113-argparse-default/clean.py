import argparse


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device-a", default="cuda:0")
    ap.add_argument("--device-b", default="cuda:0")
    return ap.parse_args()
