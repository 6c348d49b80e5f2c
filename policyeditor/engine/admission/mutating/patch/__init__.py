"""The two patch types a mutation produces: JSON Patch and ApplyConfiguration."""
