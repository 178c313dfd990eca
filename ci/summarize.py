#!/usr/bin/env python3
import sys; from tdc import verbs; sys.exit(verbs.main(["summarize", *sys.argv[1:]]))
