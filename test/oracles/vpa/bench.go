package main

import (
	"bufio"
)

func runBench(in *bufio.Reader, out *bufio.Writer) {}
