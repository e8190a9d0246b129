// Command pacer-image lays out an OCI image without a container daemon: each --layer directory
// becomes one layer (its files owned by root, timestamps fixed, so the same input gives the same
// digest), on an empty base, with the runtime configuration from the flags. It writes an OCI image
// layout (--oci-dir) and/or a tarball that `docker load` and `podman load` read (--tarball).
//
//	pacer-image --layer build/runtime --layer build/app --user 1000:1000 \
//	  --entrypoint /usr/local/bin/node,/app/bin/pacer.js --cmd controller --workdir /app \
//	  --env NODE_ENV=production --port 8443 --tag pacer:0.1.0 --oci-dir out/oci --tarball out/image.tar
package main

import (
	"archive/tar"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// temps are the layers' tar files, removed at the end.
var temps []string

// epoch is every file's modification time in the layers, and the image's creation time.
var epoch = time.Unix(0, 0).UTC()

func main() {
	var layers, envs, ports, labels list
	user := flag.String("user", "", "the user the process runs as (uid:gid)")
	entrypoint := flag.String("entrypoint", "", "the entrypoint, comma-separated")
	cmd := flag.String("cmd", "", "the default arguments, comma-separated")
	workdir := flag.String("workdir", "/", "the working directory")
	tag := flag.String("tag", "", "the image's name in --tarball (repository:tag)")
	ociDir := flag.String("oci-dir", "", "write an OCI image layout here")
	tarPath := flag.String("tarball", "", "write a docker-load tarball here")
	platform := flag.String("platform", "linux/amd64", "the image's os/arch")
	flag.Var(&layers, "layer", "a directory that becomes a layer (repeatable, bottom first)")
	flag.Var(&envs, "env", "KEY=VALUE in the environment (repeatable)")
	flag.Var(&ports, "port", "an exposed TCP port (repeatable)")
	flag.Var(&labels, "label", "KEY=VALUE as an image label (repeatable)")
	flag.Parse()
	if len(layers) == 0 || (*ociDir == "" && *tarPath == "") {
		fail("at least one --layer and one of --oci-dir or --tarball are needed (got layers %q, --oci-dir %q, --tarball %q)", layers, *ociDir, *tarPath)
	}
	osArch := strings.SplitN(*platform, "/", 2)
	if len(osArch) != 2 {
		fail("--platform must be os/arch, got %q", *platform)
	}

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for _, dir := range layers {
		layer, err := layerOf(dir)
		if err != nil {
			fail("layer %s: %v", dir, err)
		}
		if img, err = mutate.Append(img, mutate.Addendum{Layer: layer, MediaType: types.OCILayer}); err != nil {
			fail("layer %s: %v", dir, err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		fail("config: %v", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = osArch[0], osArch[1]
	cf.Created = v1.Time{Time: epoch}
	cf.Config.User = *user
	cf.Config.Entrypoint = split(*entrypoint)
	cf.Config.Cmd = split(*cmd)
	cf.Config.WorkingDir = *workdir
	cf.Config.Env = envs
	if len(ports) > 0 {
		cf.Config.ExposedPorts = map[string]struct{}{}
		for _, p := range ports {
			cf.Config.ExposedPorts[p+"/tcp"] = struct{}{}
		}
	}
	if len(labels) > 0 {
		cf.Config.Labels = map[string]string{}
		for _, l := range labels {
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				fail("--label must be KEY=VALUE, got %q", l)
			}
			cf.Config.Labels[k] = v
		}
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		fail("config: %v", err)
	}

	if *ociDir != "" {
		if err := os.RemoveAll(*ociDir); err != nil {
			fail("%v", err)
		}
		p, err := layout.Write(*ociDir, empty.Index)
		if err != nil {
			fail("OCI layout %s: %v", *ociDir, err)
		}
		annotations := map[string]string{}
		if *tag != "" {
			annotations["org.opencontainers.image.ref.name"] = *tag
		}
		if err := p.AppendImage(img, layout.WithAnnotations(annotations)); err != nil {
			fail("OCI layout %s: %v", *ociDir, err)
		}
	}
	if *tarPath != "" {
		ref, err := name.NewTag(*tag)
		if err != nil {
			fail("--tag %q: %v", *tag, err)
		}
		if err := tarball.WriteToFile(*tarPath, ref, img); err != nil {
			fail("tarball %s: %v", *tarPath, err)
		}
	}
	digest, err := img.Digest()
	if err != nil {
		fail("digest: %v", err)
	}
	removeTemps()
	fmt.Println(digest.String())
}

func removeTemps() {
	for _, t := range temps {
		os.Remove(t)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// layerOf tars dir (its paths relative to it, as the image's absolute paths) into a temporary file
// and makes a gzip-compressed layer of it.
func layerOf(dir string) (v1.Layer, error) {
	f, err := os.CreateTemp("", "pacer-layer-*.tar")
	if err != nil {
		return nil, err
	}
	temps = append(temps, f.Name())
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return err
			}
		}
		h, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			h.Name += "/"
		}
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "root", "root"
		h.ModTime, h.AccessTime, h.ChangeTime = epoch, time.Time{}, time.Time{}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return tarball.LayerFromFile(f.Name())
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pacer-image: "+format+"\n", args...)
	removeTemps()
	os.Exit(1)
}
