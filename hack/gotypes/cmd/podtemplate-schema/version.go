package main

import "runtime/debug"

// apiVersion is the k8s.io/api version this program was built with.
func apiVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/api" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}
