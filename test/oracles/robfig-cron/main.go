// Oracle for test/oracles/robfig-cron.test.ts: robfig/cron v3.0.1 ParseStandard + Next, the parser Crane
// uses for EHPA cron windows. Reads JSON lines {"expr","zone","afterMs"} on stdin, writes one JSON line per
// input: {"nextMs": n} (0 when robfig gives up) or {"error": "..."}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/robfig/cron/v3"
)

type query struct {
	Expr    string `json:"expr"`
	Zone    string `json:"zone"`
	AfterMs int64  `json:"afterMs"`
}

type answer struct {
	NextMs *int64 `json:"nextMs,omitempty"`
	Error  string `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var q query
		if err := json.Unmarshal(in.Bytes(), &q); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var a answer
		loc, err := time.LoadLocation(q.Zone)
		if err != nil {
			a.Error = err.Error()
		} else if s, err := cron.ParseStandard(q.Expr); err != nil {
			a.Error = err.Error()
		} else {
			next := s.Next(time.UnixMilli(q.AfterMs).In(loc))
			ms := int64(0)
			if !next.IsZero() {
				ms = next.UnixMilli()
			}
			a.NextMs = &ms
		}
		if err := enc.Encode(a); err != nil {
			os.Exit(3)
		}
	}
}
