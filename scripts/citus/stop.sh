#!/usr/bin/env bash
# Stops the Citus test cluster's nodes (scripts/citus/start.sh started them). Their data stays for
# the next start; `bash scripts/citus/cluster.sh reset` deletes it.
exec bash "$(dirname "${BASH_SOURCE[0]}")/cluster.sh" stop
