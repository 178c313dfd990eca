#!/usr/bin/env python3
import sys; from tdc import verbs; sys.exit(verbs.main(["qualification-gate", *sys.argv[1:]]))
