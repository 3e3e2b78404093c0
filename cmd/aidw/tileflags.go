package main

import (
	"fmt"
	"strconv"

	"github.com/aidw/aidw/internal/bytesize"
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
	b, err := bytesize.Parse(v[0])
	a.tiles.memory = b
	return err
}
