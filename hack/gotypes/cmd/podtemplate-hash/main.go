// podtemplate-hash prints kube-controller-manager's pod-template-hash of each template in a JSON
// corpus (an array of {"name", "template", "collisionCount"?}; a file argument or stdin), as
// {"name", "hash"} per line; with -record the corpus again with each row's "hash" set to it; with
// -dump the go-spew text that is hashed.
//
// A template goes the way kube-controller-manager receives it: decoded from JSON as the API server
// does, stored as protobuf, decoded from protobuf by the informer (so an empty list or map is nil
// and a quantity is parsed from its canonical string). It is then hashed by the ten lines of
// k8s.io/kubernetes/pkg/controller.ComputeHash, with the same k8s.io/utils/dump.ForHash that
// pkg/util/hash.DeepHashObject calls (importing k8s.io/kubernetes would pull the whole module in).
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
	sigsjson "sigs.k8s.io/json"
)

type row struct {
	Name           string          `json:"name"`
	CollisionCount *int32          `json:"collisionCount,omitempty"`
	Hash           string          `json:"hash,omitempty"`
	Template       json.RawMessage `json:"template"`
}

// asInformerSees decodes a template's JSON as the API server does, then round-trips it through
// protobuf as etcd and the informer do.
func asInformerSees(raw []byte) (corev1.PodTemplateSpec, error) {
	var t corev1.PodTemplateSpec
	strict, err := sigsjson.UnmarshalStrict(raw, &t)
	if err != nil {
		return t, err
	}
	if len(strict) > 0 {
		return t, fmt.Errorf("not a v1.PodTemplateSpec: %v", strict)
	}
	data, err := t.Marshal()
	if err != nil {
		return t, err
	}
	var back corev1.PodTemplateSpec
	return back, back.Unmarshal(data)
}

// computeHash is controller.ComputeHash of k8s.io/kubernetes v1.36.4, line for line.
func computeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	podTemplateSpecHasher := fnv.New32a()
	podTemplateSpecHasher.Reset() // hashutil.DeepHashObject
	fmt.Fprintf(podTemplateSpecHasher, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		collisionCountBytes := make([]byte, 8)
		binary.LittleEndian.PutUint32(collisionCountBytes, uint32(*collisionCount))
		podTemplateSpecHasher.Write(collisionCountBytes)
	}
	return rand.SafeEncodeString(fmt.Sprint(podTemplateSpecHasher.Sum32()))
}

func main() {
	// A time the informer decodes is in the local zone, which Go loads on first use; by the time
	// kube-controller-manager hashes, its logging has loaded it. Load it here too.
	_ = time.Local.String()
	dumpOnly := flag.Bool("dump", false, "print the go-spew text of each template instead of its hash")
	record := flag.Bool("record", false, "print the corpus with each row's hash set")
	flag.Parse()
	var in io.Reader = os.Stdin
	if flag.NArg() > 0 {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "podtemplate-hash:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	var rows []row
	if err := json.NewDecoder(in).Decode(&rows); err != nil {
		fmt.Fprintln(os.Stderr, "podtemplate-hash: the corpus is not a JSON array of {name, template, collisionCount?}:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for i, r := range rows {
		t, err := asInformerSees(r.Template)
		if err != nil {
			fmt.Fprintf(os.Stderr, "podtemplate-hash: row %q: %v\n", r.Name, err)
			os.Exit(1)
		}
		if *dumpOnly {
			fmt.Fprintf(out, "%s\n%s\n", r.Name, dump.ForHash(t))
			continue
		}
		hash := computeHash(&t, r.CollisionCount)
		if *record {
			rows[i].Hash = hash
			continue
		}
		line, _ := json.Marshal(map[string]string{"name": r.Name, "hash": hash})
		fmt.Fprintf(out, "%s\n", line)
	}
	if *record {
		text, _ := json.MarshalIndent(rows, "", " ")
		fmt.Fprintf(out, "%s\n", text)
	}
}
