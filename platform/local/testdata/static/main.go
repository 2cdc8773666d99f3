// A program built static (CGO_ENABLED=0) by TestNondumpWrap: an interpreter with no loader.
package main

func main() {}
