package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tileArgs are the flags of tiled mode: -tile <nodes> (the tile side), -memory <size> (the
// budget that decides tiling and the tile side).
type tileArgs struct {
	side   int
	memory int64 // bytes; 0: a safe share of the free memory
}

func setTile(a *gridArgs, v []string) error {
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 {
		return fmt.Errorf("-tile %s: the tile side is a number of nodes, at least 1", v[0])
	}
	a.tiles.side = n
	return nil
}

func setMemory(a *gridArgs, v []string) error {
	b, err := parseBytes(v[0])
	if err != nil {
		return fmt.Errorf("-memory %s: %w", v[0], err)
	}
	a.tiles.memory = b
	return nil
}

// parseBytes reads a size: a number with an optional unit, B, KB, MB, GB, TB (powers of 1024;
// KiB, MiB, ... too).
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"TB", 1 << 40}, {"GB", 1 << 30},
		{"MB", 1 << 20}, {"KB", 1 << 10}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a size: give a number and a unit, as 400MB or 8GB")
	}
	return int64(f * mult), nil
}
