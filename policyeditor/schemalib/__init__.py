"""A team's schema library: imported CustomResourceDefinitions, each import kept as a version."""
