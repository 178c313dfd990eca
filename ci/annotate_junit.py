#!/usr/bin/env python3
import sys; from tdc import verbs; sys.exit(verbs.main(["annotate", *sys.argv[1:]]))
