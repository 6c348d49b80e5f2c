"""The test-suite layouts we read: policytest, kat directories, kaptest manifests and Kyverno CLI tests."""
