import { Component, type ReactNode } from 'react';

/** An error boundary for tests: shows "failed: <message>" for what its children threw. */
export class Boundary extends Component<{ children: ReactNode }, { error?: Error }> {
  state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  render() {
    return this.state.error ? <p>failed: {this.state.error.message}</p> : this.props.children;
  }
}
