#!/usr/bin/env python3
import sys; from tdc import verbs; sys.exit(verbs.main(["verdict", *sys.argv[1:]]))
