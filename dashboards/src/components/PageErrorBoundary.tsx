import { Button, Result } from 'antd';
import { Component, type ReactNode } from 'react';
import { withTranslation, type WithTranslation } from 'react-i18next';

interface State {
  failed: boolean;
}

/** A page that fails to load (chunk timeout, network) or to render shows this instead of a blank shell. */
class PageErrorBoundaryBase extends Component<{ children: ReactNode } & WithTranslation, State> {
  state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  render() {
    const { t, children } = this.props;
    if (!this.state.failed) return children;
    return (
      <Result
        status="500"
        title="500"
        subTitle={t('exception:loadFailed')}
        extra={
          <Button type="primary" onClick={() => window.location.reload()}>
            {t('exception:reload')}
          </Button>
        }
      />
    );
  }
}

const PageErrorBoundary = withTranslation()(PageErrorBoundaryBase);
export default PageErrorBoundary;
