module github.com/aidw/aidw

go 1.26.8

require (
	github.com/airbusgeo/godal v0.0.18
	github.com/cpuguy83/go-md2man/v2 v2.0.7
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/image v0.36.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
