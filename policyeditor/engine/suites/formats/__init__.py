"""The test-suite layouts we read: policytest, kat directories and kaptest manifests."""
