package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// startPprof serves Go's profiler on addr (CONSENTFORMS_PPROF_ADDR, off by default; bind it
// to loopback): a separate listener, so the profiler is never reachable through the API port.
func startPprof(addr string, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	log.Info("profiler listening", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
