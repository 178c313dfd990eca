#!/usr/bin/env python3
import sys; from tdc import verbs; sys.exit(verbs.main(["context", *sys.argv[1:]]))
