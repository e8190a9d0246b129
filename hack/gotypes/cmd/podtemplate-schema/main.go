// podtemplate-schema prints, as JSON, every Go type reachable from k8s.io/api's
// v1.PodTemplateSpec the way go-spew walks them: each type under the name reflect (and so spew)
// prints, structs with their fields in declaration order (Go name, JSON name), pointers, slices and
// maps with their element types. src/engine/kubernetes/spew.ts dumps a template's JSON with it.
//
//	cd hack/gotypes && go run ./cmd/podtemplate-schema > ../../src/engine/kubernetes/podtemplate-types.json
//
// Each type is keyed by the name go-spew prints; a struct lists its fields in declaration order as
// [Go name, JSON name (null: embedded and inlined), type]; "json" marks a type decoded from a JSON
// form of its own (a quantity, an int-or-string, a time), whose fields' JSON names are "".
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Types whose JSON is not the plain struct: each is built from its JSON form by spew.ts.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intOrString",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "fieldsV1",
}

type entry struct {
	name string
	line string
}

var (
	seen    = map[string]reflect.Type{}
	entries []entry
	// Types only reached through a special type: described with their Go field names only.
	unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "podtemplate-schema: "+format+"\n", args...)
	os.Exit(1)
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// visit describes t (once) and everything it reaches. inSpecial: t is part of a special type's
// Go representation, whose JSON form is not read field by field.
func visit(t reflect.Type, inSpecial bool) {
	name := t.String()
	if prev, ok := seen[name]; ok {
		if prev != t {
			fail("two types print as %s: %s and %s", name, prev.PkgPath(), t.PkgPath())
		}
		return
	}
	seen[name] = t
	full := t.PkgPath() + "." + t.Name()
	sp := special[full]
	if !inSpecial && sp == "" && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshaler) {
		fail("%s decodes its JSON itself: teach spew.ts its form and list it in special", full)
	}
	var line string
	switch t.Kind() {
	case reflect.Struct:
		var fields []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			jsonName := strings.Split(f.Tag.Get("json"), ",")[0]
			inline := f.Anonymous && jsonName == ""
			switch {
			case inSpecial || sp != "":
				jsonName = ""
			case inline:
				jsonName = ""
			case jsonName == "-":
				fail("%s.%s is not in JSON but go-spew prints it", full, f.Name)
			case jsonName == "":
				jsonName = f.Name
			}
			if inline && !inSpecial && sp == "" {
				fields = append(fields, fmt.Sprintf("[%s,null,%s]", q(f.Name), q(f.Type.String())))
			} else {
				fields = append(fields, fmt.Sprintf("[%s,%s,%s]", q(f.Name), q(jsonName), q(f.Type.String())))
			}
			visit(f.Type, inSpecial || sp != "")
		}
		extra := ""
		if sp != "" {
			extra = fmt.Sprintf(`,"json":%s`, q(sp))
		}
		line = fmt.Sprintf(`{"kind":"struct"%s,"fields":[%s]}`, extra, strings.Join(fields, ","))
	case reflect.Pointer:
		if t.Elem().Size() == 0 {
			fail("%s points at a zero-size type: go-spew may see its pointers as one and print <already shown>", name)
		}
		line = fmt.Sprintf(`{"kind":"ptr","elem":%s}`, q(t.Elem().String()))
		visit(t.Elem(), inSpecial)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !inSpecial {
			fail("%s: a []byte decodes from base64 and protobuf keeps it empty, not nil; not handled", name)
		}
		line = fmt.Sprintf(`{"kind":"slice","elem":%s}`, q(t.Elem().String()))
		visit(t.Elem(), inSpecial)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			fail("%s: map keys other than strings are not handled", name)
		}
		line = fmt.Sprintf(`{"kind":"map","key":%s,"elem":%s}`, q(t.Key().String()), q(t.Elem().String()))
		visit(t.Key(), inSpecial)
		visit(t.Elem(), inSpecial)
	case reflect.String:
		line = `{"kind":"string"}`
	case reflect.Bool:
		line = `{"kind":"bool"}`
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		line = fmt.Sprintf(`{"kind":"int","bits":%d}`, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		line = fmt.Sprintf(`{"kind":"uint","bits":%d}`, t.Bits())
	default:
		fail("%s: kind %s is not handled", name, t.Kind())
	}
	entries = append(entries, entry{name, line})
}

func main() {
	visit(reflect.TypeOf(corev1.PodTemplateSpec{}), false)
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"generated\": %s,\n  \"root\": \"v1.PodTemplateSpec\",\n  \"types\": {\n",
		q("by hack/gotypes/cmd/podtemplate-schema from k8s.io/api "+apiVersion()+"; do not edit"))
	for i, e := range entries {
		sep := ","
		if i == len(entries)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s: %s%s\n", q(e.name), e.line, sep)
	}
	b.WriteString("  }\n}\n")
	os.Stdout.WriteString(b.String())
}
