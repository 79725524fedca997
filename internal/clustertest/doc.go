// Package clustertest runs Tessera as issue 23 deploys it and tests it
// from outside: a throw-away PostgreSQL (package pgtest), versitygw for S3,
// three `tessera serve` processes built from this tree, and nginx in front
// of them with deploy/nginx.conf. The tests talk HTTP to nginx (and to a
// node directly where they need to know which node answers), kill nodes
// with signals and read the database for what the nodes counted.
//
// The package holds only tests. They skip when go, PostgreSQL, versitygw
// or nginx is missing, unless TESSERA_REQUIRE_TOOLS=1.
package clustertest
