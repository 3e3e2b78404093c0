// Command las2csv writes the points of LAS files as x,y,z text, each coordinate in the shortest
// decimal form that reads back as the same float64, so that a tool reading the text (gdal_grid
// through OGR, aidw's text reader) gets exactly the points aidw reads from the LAS files. It
// takes the same point filters as `aidw grid`.
//
//	go run ./scripts/las2csv -class 2 -o ground.csv tiles/*.las
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

func main() {
	out := flag.String("o", "points.csv", "output text file")
	classes := flag.String("class", "", "keep only these comma-separated classification codes")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: las2csv [-class 2,...] [-o out.csv] file.las...")
	}
	var f lidar.Filter
	for _, c := range strings.Split(*classes, ",") {
		if c == "" {
			continue
		}
		n, err := strconv.Atoi(c)
		if err != nil {
			log.Fatalf("-class %q: %v", *classes, err)
		}
		f.Classes = append(f.Classes, n)
	}
	if err := convert(*out, flag.Args(), f); err != nil {
		log.Fatal(err)
	}
}

func convert(out string, paths []string, f lidar.Filter) (err error) {
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(file, 1<<20)
	w.WriteString("x,y,z\n")
	var line []byte
	for _, p := range paths {
		s := &sample.Samples{} // origin 0: absolute coordinates
		if _, _, err := lidar.ReadFile(context.Background(), lidar.OpenLocal, p, f, s); err != nil {
			return err
		}
		for i := range s.X {
			line = strconv.AppendFloat(line[:0], s.X[i], 'f', -1, 64)
			line = append(line, ',')
			line = strconv.AppendFloat(line, s.Y[i], 'f', -1, 64)
			line = append(line, ',')
			line = strconv.AppendFloat(line, s.Z[i], 'f', -1, 64)
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "%s: %d points\n", p, s.Len())
	}
	return w.Flush()
}
