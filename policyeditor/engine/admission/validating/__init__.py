"""ValidatingAdmissionPolicy evaluation: plan, validations, actions."""
