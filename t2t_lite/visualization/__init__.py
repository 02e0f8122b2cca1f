"""Pictures of a trained model's attention (t2t-visualize): heat maps and HTML pages."""
