"""What runs during an evaluation: activations, helper functions, runtime costs and values."""
